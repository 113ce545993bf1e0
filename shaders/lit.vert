#version 150
// wec client, per-pixel lighting (vertex stage): hands lit.frag the view-space position
// and normal, the vertex colour and the first texture coordinate. Geometry without a
// normal column gets a zero normal, which lit.frag treats as "nothing to light".

uniform mat4 p3d_ModelViewProjectionMatrix;
uniform mat4 p3d_ModelViewMatrix;
uniform mat3 p3d_NormalMatrix;

in vec4 p3d_Vertex;
in vec3 p3d_Normal;
in vec4 p3d_Color;
in vec2 p3d_MultiTexCoord0;

out vec3 v_view_position;
out vec3 v_view_normal;
out vec4 v_color;
out vec2 v_texcoord;

void main() {
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
    v_view_position = vec3(p3d_ModelViewMatrix * p3d_Vertex);
    v_view_normal = p3d_NormalMatrix * p3d_Normal;
    v_color = p3d_Color;
    v_texcoord = p3d_MultiTexCoord0;
}

#version 150
// wec client, per-pixel lighting (fragment stage): one directional key light, a
// directional fill and ambient light, Blinn-Phong specular from the key light.
// The surface colour is the vertex colour (or the flat colour from setColor) times
// p3d_ColorScale (the side/level tint) times the first texture (white when none), so
// material-less, vertex-coloured piece models need nothing else. With wec_lighting = 0
// the output is that flat, unlit colour: the client's lighting toggle.

uniform mat4 p3d_ViewMatrix;
uniform vec4 p3d_ColorScale;
uniform sampler2D p3d_Texture0;

uniform float wec_lighting;       // 1: lit, 0: flat unlit colour
uniform vec3 wec_key_direction;   // world space, the way the key light travels
uniform vec3 wec_key_color;
uniform vec3 wec_fill_direction;  // world space, the way the fill light travels
uniform vec3 wec_fill_color;
uniform vec3 wec_ambient_color;
uniform vec3 wec_specular_color;  // key light highlight on every surface
uniform float wec_shininess;      // Blinn-Phong exponent

in vec3 v_view_position;
in vec3 v_view_normal;
in vec4 v_color;
in vec2 v_texcoord;

out vec4 o_color;

// The fraction of a directional light travelling along world_direction that falls on a
// surface with view-space normal n (Lambert).
float diffuse(vec3 n, vec3 world_direction) {
    vec3 to_light = normalize(-(mat3(p3d_ViewMatrix) * world_direction));
    return max(dot(n, to_light), 0.0);
}

void main() {
    vec4 surface = v_color * p3d_ColorScale * texture(p3d_Texture0, v_texcoord);
    float normal_length = length(v_view_normal);
    if (wec_lighting < 0.5 || normal_length < 1e-4) {
        o_color = surface;
        return;
    }
    vec3 n = v_view_normal / normal_length;
    float key = diffuse(n, wec_key_direction);
    float fill = diffuse(n, wec_fill_direction);

    vec3 to_key = normalize(-(mat3(p3d_ViewMatrix) * wec_key_direction));
    vec3 to_eye = normalize(-v_view_position);
    vec3 halfway = normalize(to_key + to_eye);
    float specular = key > 0.0 ? pow(max(dot(n, halfway), 0.0), wec_shininess) : 0.0;

    vec3 light = wec_ambient_color + wec_key_color * key + wec_fill_color * fill;
    vec3 rgb = surface.rgb * light + wec_specular_color * specular;
    o_color = vec4(min(rgb, vec3(1.0)), surface.a);
}
